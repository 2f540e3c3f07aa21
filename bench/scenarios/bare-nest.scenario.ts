import * as path from 'path';
import { BenchScenario, RUNNING_FROM_SOURCE } from '../harness';

/** GET /bare on a minimal NestFactory app in its own process: the yardstick for the ratios. */
export const bareNestScenario: BenchScenario = {
  id: 'bare',
  title: 'Bare Nest route (baseline)',
  async run(ctx) {
    const script = path.join(__dirname, '..', `bare-nest.server.${RUNNING_FROM_SOURCE ? 'ts' : 'js'}`);
    const proc = await ctx.spawn(script, {
      nodeArgs: RUNNING_FROM_SOURCE ? ['-r', 'ts-node/register/transpile-only'] : [],
      readyPath: '/bare',
    });
    try {
      const result = await ctx.measure({ name: 'GET /bare (minimal Nest app)', target: proc, method: 'GET', path: '/bare', baseline: true });
      return { http: [result] };
    } finally {
      await ctx.stop(proc);
    }
  },
};
