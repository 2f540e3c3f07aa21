/**
 * The baseline: the least a Nest (Express) app can do per request, one GET route returning a
 * small JSON object. Run as its own process so it meets the same client on the same machine as
 * the Dojang server; the ratio of the two is what our own code costs.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

@Controller()
class BareController {
  @Get('bare')
  bare() {
    return { object: 'bare', ok: true };
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

async function main() {
  const app = await NestFactory.create(BareModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
  const shutdown = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
