import { Controller, Get, Injectable, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiOperation, OpenAPIObject } from '@nestjs/swagger';
import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { Response } from 'express';
import { Public } from '../shared/auth.guard';

/** Holds the document; create-app hands it a factory once the application exists. */
@Injectable()
export class OpenApiDocumentHolder {
  private factory: (() => OpenAPIObject) | null = null;
  private document: OpenAPIObject | null = null;

  init(factory: () => OpenAPIObject): void {
    this.factory = factory;
    this.document = null;
  }

  get(): OpenAPIObject {
    if (!this.document) {
      if (!this.factory) throw new Error('OpenAPI document factory not set');
      this.document = this.factory();
    }
    return this.document;
  }
}

/** swagger-ui-dist ships with @nestjs/swagger: the page loads nothing from other hosts. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dojang API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<noscript>The interactive reference needs JavaScript; the document itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

let uiDir: string | null = null;
const swaggerUiDir = () => (uiDir ??= dirname(require.resolve('swagger-ui-dist/package.json')));

@Public()
@Controller()
export class OpenApiHttpController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get('openapi.json')
  @ApiOperation({ summary: 'This OpenAPI 3.1 document' })
  openapi() {
    return this.holder.get();
  }

  @Get('docs')
  @ApiOperation({ summary: 'API reference page (Swagger UI, self-contained)' })
  docs(@Res() res: Response) {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
    res.end(PAGE);
  }

  @Get('docs/assets/:asset')
  @ApiOperation({ summary: 'Static files of the reference page' })
  asset(@Param('asset') asset: string, @Res() res: Response) {
    if (asset === 'init.js') {
      res.setHeader('Content-Type', 'application/javascript; charset=utf-8');
      return res.end(INIT_JS);
    }
    // Own keys only: `constructor` or `__proto__` must not resolve to Object's members.
    const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
    if (!type) throw new NotFoundException();
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.end(readFileSync(join(swaggerUiDir(), asset)));
  }
}
