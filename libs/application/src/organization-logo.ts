import { OrganizationLogo } from '@dojang/domain';

/** The file name a logo is served under: its content hash, so a URL always means the same bytes. */
export function logoFileName(logo: Pick<OrganizationLogo, 'sha256' | 'content_type'>): string {
  return `${logo.sha256}.${logo.content_type === 'image/jpeg' ? 'jpg' : 'png'}`;
}

/**
 * Where anyone (a mail client, the signing page) fetches an organization's logo: under /sign, so
 * the signing page loads it from its own origin (its CSP allows images from 'self' only), without
 * an API key, cached for a year (a new logo is a new URL).
 */
export function logoPath(organizationId: string, logo: Pick<OrganizationLogo, 'sha256' | 'content_type'>): string {
  return `/sign/brand/${encodeURIComponent(organizationId)}/${logoFileName(logo)}`;
}

/** The absolute URL, for e-mails (a mail client has no origin to resolve a path against). */
export function logoUrl(origin: string, organizationId: string, logo: Pick<OrganizationLogo, 'sha256' | 'content_type'>): string {
  return `${origin.replace(/\/+$/, '')}${logoPath(organizationId, logo)}`;
}
