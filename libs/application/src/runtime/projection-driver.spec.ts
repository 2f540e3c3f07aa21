import { ProjectionRunner } from '@dojang/projections';
import { ProjectorHandlers, ReadStore } from '@dojang/read-store';
import { ProjectionDriver } from './projection-driver';

/** A runner as the driver uses it: records calls, reaches what it is told. */
function fakeRunner(names = ['documents', 'api_keys']) {
  const calls: string[] = [];
  let reached = 0;
  const runner = {
    projections: names.map((name) => ({ name })),
    get position() {
      return reached;
    },
    async start() {
      calls.push('start');
    },
    async stop() {
      calls.push('stop');
    },
    async init() {
      calls.push('init');
    },
    async catchUp() {
      calls.push('catchUp');
    },
    async waitFor(position: number) {
      calls.push(`waitFor ${position}`);
      return reached >= position;
    },
    reach(position: number) {
      reached = position;
    },
  };
  return { runner, calls };
}

/** A read store with an election the test drives. */
function electedStore(stored: Record<string, number> = {}) {
  let handlers!: ProjectorHandlers;
  let left = false;
  const reads = {
    reads: 0,
    async getCheckpoints(names: string[]) {
      reads.reads++;
      return Object.fromEntries(names.map((n) => [n, stored[n] ?? 0]));
    },
    async joinProjectors(h: ProjectorHandlers) {
      handlers = h;
      return async () => {
        left = true;
      };
    },
  };
  return {
    reads: reads as unknown as ReadStore & typeof reads,
    stored,
    handlers: () => handlers,
    left: () => left,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ProjectionDriver', () => {
  it('runs the runner itself on a store without an election (the embedded store)', async () => {
    const { runner, calls } = fakeRunner();
    const driver = new ProjectionDriver(runner as unknown as ProjectionRunner, { getCheckpoints: jest.fn() } as unknown as ReadStore);
    await driver.start();
    expect(driver.role).toBe('local');
    expect(calls).toEqual(['start']);
    runner.reach(5);
    expect(await driver.waitFor(5)).toBe(true);
    expect(driver.position).toBe(5);
  });

  it('as a follower, does not project, and answers a wait when the projector announces the position', async () => {
    const { runner, calls } = fakeRunner();
    const store = electedStore({ documents: 4, api_keys: 4 });
    const driver = new ProjectionDriver(runner as unknown as ProjectionRunner, store.reads, { pollMs: 3_600_000 });
    await driver.start();
    expect(driver.role).toBe('follower');
    expect(driver.position).toBe(4);
    expect(await driver.waitFor(4)).toBe(true);
    let answered: boolean | null = null;
    void driver.waitFor(9).then((r) => (answered = r));
    store.handlers().onCheckpoints({ documents: 9 });
    await tick();
    expect(answered).toBeNull(); // api_keys is still at 4
    store.handlers().onCheckpoints({ api_keys: 12 });
    await tick();
    expect(answered).toBe(true);
    expect(driver.position).toBe(9);
    // The runner was never started nor asked to project.
    expect(calls).toEqual([]);
    await driver.stop();
    expect(store.left()).toBe(true);
  });

  it('reads the checkpoints while someone waits, in case an announcement is lost, and gives up at the timeout', async () => {
    const { runner } = fakeRunner();
    const store = electedStore();
    const driver = new ProjectionDriver(runner as unknown as ProjectionRunner, store.reads, { pollMs: 10 });
    await driver.start();
    const waiting = driver.waitFor(3, 5_000);
    store.stored.documents = 3;
    store.stored.api_keys = 3;
    expect(await waiting).toBe(true);
    expect(await driver.waitFor(50, 30)).toBe(false);
    await driver.stop();
  });

  it('starts the runner when it gets the role, hands its waiters to it, and stops it when it loses the role', async () => {
    const { runner, calls } = fakeRunner();
    const store = electedStore();
    const driver = new ProjectionDriver(runner as unknown as ProjectionRunner, store.reads, { pollMs: 3_600_000 });
    await driver.start();
    const waiting = driver.waitFor(2);
    runner.reach(2);
    store.handlers().onRole(true);
    expect(await waiting).toBe(true);
    expect(driver.role).toBe('projector');
    expect(calls).toEqual(['start', 'waitFor 2']);
    runner.reach(6);
    expect(driver.position).toBe(6);
    store.handlers().onRole(false);
    await tick();
    await tick();
    expect(driver.role).toBe('follower');
    expect(calls).toEqual(['start', 'waitFor 2', 'stop']);
    await driver.stop();
  });

  it('as a follower, reloads the checkpoints before projecting itself (the fallback of a wait that gave up)', async () => {
    const { runner, calls } = fakeRunner();
    const store = electedStore();
    const driver = new ProjectionDriver(runner as unknown as ProjectionRunner, store.reads, { pollMs: 3_600_000 });
    await driver.start();
    await driver.catchUp();
    expect(calls).toEqual(['init', 'catchUp']);
    await driver.stop();
  });

  it('keeps trying to start the runner while it holds the role (a projector that does not project would stall everyone)', async () => {
    const { runner, calls } = fakeRunner();
    let failures = 2;
    runner.start = async () => {
      calls.push('start');
      if (failures-- > 0) throw new Error('database restarting');
    };
    const errors: unknown[] = [];
    const store = electedStore();
    const driver = new ProjectionDriver(runner as unknown as ProjectionRunner, store.reads, { pollMs: 3_600_000, retryMs: 5, onError: (e) => errors.push(e) });
    await driver.start();
    store.handlers().onRole(true);
    for (let i = 0; i < 200 && driver.role !== 'projector'; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(driver.role).toBe('projector');
    expect(calls).toEqual(['start', 'start', 'start']);
    expect(errors).toHaveLength(2);
    await driver.stop();
  });
});
