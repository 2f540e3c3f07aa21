/**
 * Runs a catch-up pass at most once at a time: a trigger during a pass asks for one more pass
 * after it, however many triggers arrive. Both runners (projections, reactors) follow the log so.
 */
export class CoalescingPass {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly keepGoing: () => boolean = () => true,
    private readonly onError?: (err: unknown) => void,
  ) {}

  trigger(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && this.keepGoing());
      } catch (err) {
        if (!this.onError) throw err;
        this.onError(err);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** The pass in progress, if any (to wait for it before stopping). */
  get current(): Promise<void> | null {
    return this.running;
  }
}
