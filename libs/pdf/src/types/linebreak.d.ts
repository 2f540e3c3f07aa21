/** linebreak (UAX #14 line breaking, the package pdfmake itself breaks lines with) ships no typings. */
declare module 'linebreak' {
  export interface Break {
    /** The index in the text a line may start at. */
    position: number;
    /** A mandatory break (a newline). */
    required: boolean;
  }
  export default class LineBreaker {
    constructor(text: string);
    nextBreak(): Break | null;
  }
}
