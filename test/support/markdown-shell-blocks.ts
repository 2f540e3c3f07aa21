/**
 * The shell blocks of a Markdown document, as a reader copies them: every fenced block labelled
 * `bash` (indented fences inside list items included, dedented as they render), in document order.
 * A block that cannot run in a test is kept out only by an explicit marker on the line just above
 * its fence, `<!-- not-run: why -->`, and is reported as skipped so the caller can pin the exact
 * set. Anything that would let a block slip through unnoticed is an error instead: a marker with
 * no reason, a fence that never closes, a shell block labelled `sh`/`shell`/`console`, or an
 * unlabelled (or `text`, `json`, …) fence that holds a `curl` or `npm run` command.
 */

export interface ShellBlock {
  /** 1-based position among the document's bash blocks (skipped ones included). */
  readonly index: number;
  /** 1-based line of the opening fence in the document. */
  readonly line: number;
  /** The block's text, dedented by its fence's indentation, ending with a newline. */
  readonly code: string;
  /** Its first non-blank line, to name it in failure messages. */
  readonly firstLine: string;
  /** Set when the block is marked `<!-- not-run: reason -->`. */
  readonly skipReason?: string;
}

const FENCE_OPEN = /^( *)(`{3,})([^`\s]*)[^`]*$/;
const NOT_RUN = /^<!--\s*not-run:(.*?)-->\s*$/;
const OTHER_SHELLS = new Set(['sh', 'shell', 'zsh', 'console', 'shell-session', 'bash-session']);
const LOOKS_RUNNABLE = /(^|\s|\$\()(curl|npm run)\s/m;

export function shellBlocks(markdown: string, source = 'document'): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]);
    if (!open) continue;
    const [, indent, ticks, lang] = open;
    const close = new RegExp(`^ {0,${indent.length + 3}}\`{${ticks.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end])) end++;
    if (end >= lines.length) throw new Error(`${source}:${i + 1}: the fence opened here never closes`);
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()));
    const code = body.join('\n') + '\n';
    const where = `${source}:${i + 1}`;

    if (OTHER_SHELLS.has(lang.toLowerCase())) {
      throw new Error(`${where}: a \`${lang}\` block; label shell blocks \`bash\` (they are run by the docs test) or mark them <!-- not-run: why -->`);
    }
    if (lang !== 'bash') {
      if (LOOKS_RUNNABLE.test(code)) {
        throw new Error(`${where}: a \`${lang || '(unlabelled)'}\` block with a command in it; label it \`bash\` so the docs test runs it, or mark it <!-- not-run: why -->`);
      }
      i = end;
      continue;
    }

    let prev = i - 1;
    while (prev >= 0 && lines[prev].trim() === '') prev--;
    const marker = prev >= 0 ? NOT_RUN.exec(lines[prev].trim()) : null;
    if (prev >= 0 && !marker && /not-run/.test(lines[prev])) {
      throw new Error(`${source}:${prev + 1}: write the marker as <!-- not-run: reason -->`);
    }
    const reason = marker?.[1].trim();
    if (marker && !reason) throw new Error(`${source}:${prev + 1}: a not-run marker needs a reason`);

    blocks.push({
      index: blocks.length + 1,
      line: i + 1,
      code,
      firstLine: body.find((l) => l.trim() !== '')?.trim() ?? '(empty)',
      ...(reason ? { skipReason: reason } : {}),
    });
    i = end;
  }
  return blocks;
}
