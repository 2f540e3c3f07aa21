/**
 * A one-line progress bar on a terminal's stderr: done/total, rate and ETA, redrawn at most every
 * 100 ms. Off the terminal (piped, CI, tests) it draws nothing, so stdout stays the JSON result.
 */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, total: number): void {
    if (!this.stream.isTTY) return;
    const now = Date.now();
    if (now - this.lastDraw < 100 && done < total) return;
    this.lastDraw = now;
    this.drawn = true;
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = done / seconds;
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(share * width);
    const eta = rate > 0 && total > done ? `ETA ${formatSeconds((total - done) / rate)}` : '';
    const line = `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} events  ${Math.round(rate).toLocaleString('en')} events/s  ${eta}`;
    this.stream.write(`\r${line.padEnd((this.stream.columns ?? 100) - 1).slice(0, (this.stream.columns ?? 100) - 1)}`);
  }

  done(): void {
    if (this.drawn) this.stream.write('\n');
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
