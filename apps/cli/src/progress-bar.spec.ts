import { ProgressBar } from './progress-bar';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, columns: 200, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream, writes };
}

describe('ProgressBar', () => {
  it('draws done/total, events/s and an ETA on a terminal, and ends the line when done', () => {
    const { stream, writes } = fakeStream(true);
    const bar = new ProgressBar('rebuild', stream);
    bar.update(5_000, 40_000);
    bar.done();
    expect(writes[0]).toMatch(/^\rrebuild \[#+-+\] 12% 5,000\/40,000 events {2}[\d,]+ events\/s {2}ETA [\d.]+ s/);
    expect(writes[writes.length - 1]).toBe('\n');
  });

  it('draws nothing when stderr is not a terminal (pipes, CI), so the output stays the JSON result', () => {
    const { stream, writes } = fakeStream(false);
    const bar = new ProgressBar('rebuild', stream);
    bar.update(5_000, 40_000);
    bar.done();
    expect(writes).toEqual([]);
  });
});
