import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'crypto';
import { Clock, CLOCK, Infrastructure, readBody } from '@dojang/application';
import { ContentFormat, FileRef } from '@dojang/domain';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { renderTemplate } from '@dojang/seals';
import { ApiError } from '../shared/api-error';
import { AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { CreateDocumentDto, DocumentPartDto } from './document.dto';
import { FILES, FileRow, TEMPLATES, TemplateRow, parseIssuedFileUrl } from './document-sources';

/** A part as given, its file resolved (bodies go to the blob store in the controller). */
export interface ResolvedPart {
  title: string | null;
  content: string | null;
  content_format: ContentFormat;
  file: FileRef | null;
}

export interface ResolvedBody {
  content: string | null;
  content_format: ContentFormat;
  file: FileRef | null;
  from_template: string | null;
  /** The template's version the body came from. */
  template_version?: number;
}

/** Where a new document's body comes from: inline content, an uploaded file, or a template. */
@Injectable()
export class DocumentSources {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Organization names never change (there is no rename), so the default author is cached. */
  private readonly names = new Map<string, string>();

  async defaultAuthor(auth: AuthContext): Promise<string> {
    let name = this.names.get(auth.organization_id);
    if (name === undefined) {
      name = (await this.organization(auth)).name;
      if (this.names.size > 10_000) this.names.clear();
      this.names.set(auth.organization_id, name);
    }
    return name;
  }

  async organization(auth: AuthContext): Promise<OrganizationRow> {
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, auth.organization_id);
    if (!org) throw new ApiError(401, 'authentication_error', 'invalid_api_key', 'Invalid API key.');
    return org;
  }

  /** The parts of a document made with several (documents.http.controller.ts): each a body or an issued file URL. */
  async resolveParts(auth: AuthContext, parts: DocumentPartDto[]): Promise<ResolvedPart[]> {
    return Promise.all(
      parts.map(async (p, i): Promise<ResolvedPart> => {
        const title = p.title?.trim() || null;
        if ((p.content !== undefined) === (p.file_url !== undefined)) throw ApiError.missing(`parts[${i}].content`, `parts[${i}] needs either content or file_url (one of them).`);
        if (p.content !== undefined) {
          if (!p.content.trim()) throw ApiError.missing(`parts[${i}].content`, `parts[${i}].content must not be empty.`);
          return { title, content: p.content, content_format: p.content_format ?? 'html', file: null };
        }
        if (p.content_format !== undefined) throw ApiError.invalid(`parts[${i}].content_format`, `parts[${i}].content_format applies to content only: a file_url part is a PDF.`);
        return { title, content: null, content_format: 'pdf', file: await this.resolveFile(auth, p.file_url as string, `parts[${i}].file_url`) };
      }),
    );
  }

  async resolveBody(auth: AuthContext, dto: CreateDocumentDto): Promise<ResolvedBody> {
    const given = [dto.content !== undefined, dto.file_url !== undefined, dto.from_template !== undefined].filter(Boolean).length;
    if (given === 0) throw ApiError.missing('content', 'Provide content, file_url, from_template or parts.');
    if (given > 1) throw ApiError.invalid('content', 'Provide only one of content, file_url and from_template.');
    if (dto.variables !== undefined && dto.from_template === undefined) {
      throw ApiError.invalid(
        'variables',
        'variables fill the {{placeholders}} of a template: send from_template with a template id (POST /v1/templates creates one) and the variables, or leave variables out and put the values into content yourself.',
      );
    }
    if (dto.content !== undefined) {
      if (!dto.content.trim()) throw ApiError.missing('content', 'content must not be empty.');
      return { content: dto.content, content_format: dto.content_format ?? 'html', file: null, from_template: null };
    }
    if (dto.content_format !== undefined) {
      throw ApiError.invalid('content_format', 'content_format applies to content only: leave content_format out with file_url (a PDF) or from_template (the template has its own format).');
    }
    if (dto.file_url !== undefined) return { content: null, content_format: 'pdf', file: await this.resolveFile(auth, dto.file_url), from_template: null };
    return this.resolveTemplate(auth, dto.from_template as string, dto.variables ?? {});
  }

  /**
   * Only URLs this service issued, signed and unexpired, are accepted; nothing is ever fetched, so
   * file_url cannot be turned against the network (SSRF).
   */
  private async resolveFile(auth: AuthContext, url: string, param = 'file_url'): Promise<FileRef> {
    const refuse = (why: string) => ApiError.invalid(param, `${param} must be a URL returned by POST /files that has not expired (${why}).`);
    const parsed = parseIssuedFileUrl(url);
    if (!parsed) throw refuse('not a file URL of this service');
    const expected = this.infra.secrets.sign(`${parsed.file_id}.${parsed.expires}`);
    if (!timingSafeStringEqual(expected, parsed.signature)) throw refuse('bad signature');
    if (parsed.expires * 1000 < this.clock.now().getTime()) throw refuse('expired');
    const row = await this.infra.reads.get<FileRow>(FILES, parsed.file_id);
    if (!row || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) throw refuse('unknown file');
    return { file_id: row.id, sha256: row.sha256, byte_size: row.byte_size, page_count: row.page_count };
  }

  private async resolveTemplate(auth: AuthContext, templateId: string, variables: Record<string, unknown>): Promise<ResolvedBody> {
    const row = await this.infra.reads.get<TemplateRow>(TEMPLATES, templateId);
    if (!row || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) {
      throw ApiError.invalid('from_template', `No such template: ${templateId}.`);
    }
    if (row.archived) throw new ApiError(409, 'invalid_request_error', 'template_archived', `Template ${templateId} is archived: documents can no longer be made from it.`, 'from_template');
    const result = renderTemplate((await readBody(this.infra.blobs, row)) ?? '', variables);
    if (!result.ok) {
      const names = [...new Set(result.missing)];
      throw ApiError.invalid(`variables.${names[0]}`, `Missing or invalid template variable${names.length > 1 ? 's' : ''}: ${names.join(', ')}.`);
    }
    return { content: result.html, content_format: 'html', file: null, from_template: row.id, template_version: row.version ?? 1 };
  }
}

function timingSafeStringEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
