import 'reflect-metadata';
import { Controller, Delete, ExecutionContext, Get, Post } from '@nestjs/common';
import { auditorMayCall, routePaths } from './auth.guard';

@Controller()
class RootController {
  @Get('documents/:id/evidence') evidence() {}
  @Get('organization') organization() {}
}

@Controller('documents/:id')
class DocumentController {
  @Get('history') history() {}
  @Post('send') send() {}
  @Delete() trash() {}
}

@Controller('outbox')
class OutboxController {
  @Get() list() {}
}

const context = (cls: Function, handler: Function) => ({ getClass: () => cls, getHandler: () => handler }) as unknown as ExecutionContext;

describe('auditorMayCall', () => {
  it('joins the controller and the handler path, so a document route declared on a root controller counts', () => {
    expect(routePaths(context(RootController, RootController.prototype.evidence))).toEqual(['documents/:id/evidence']);
    expect(routePaths(context(DocumentController, DocumentController.prototype.history))).toEqual(['documents/:id/history']);
    expect(routePaths(context(OutboxController, OutboxController.prototype.list))).toEqual(['outbox']);
  });

  it('lets an auditor read documents and events only, and never write', () => {
    const may = (method: string, cls: Function, handler: Function) => auditorMayCall(method, routePaths(context(cls, handler)));
    expect(may('GET', RootController, RootController.prototype.evidence)).toBe(true);
    expect(may('HEAD', DocumentController, DocumentController.prototype.history)).toBe(true);
    expect(may('GET', RootController, RootController.prototype.organization)).toBe(false);
    expect(may('GET', OutboxController, OutboxController.prototype.list)).toBe(false);
    expect(may('POST', DocumentController, DocumentController.prototype.send)).toBe(false);
    expect(may('DELETE', DocumentController, DocumentController.prototype.trash)).toBe(false);
    expect(auditorMayCall('GET', ['documentsx'])).toBe(false);
    expect(auditorMayCall('GET', ['events'])).toBe(true);
    // Plugin read models: reads only.
    expect(auditorMayCall('GET', ['extensions/:projection/:endpoint'])).toBe(true);
    expect(auditorMayCall('POST', ['extensions/:projection/:endpoint'])).toBe(false);
    expect(auditorMayCall('GET', ['extensionsx'])).toBe(false);
    expect(auditorMayCall('GET', [])).toBe(false);
  });
});
