import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { ApiError } from './api-error';

/**
 * class-transformer keeps `@Type` in a storage its index does not export (its typings do not
 * describe the CommonJS path either); @nestjs/mapped-types reads it the same way.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: { findTypeMetadata(target: Function, property: string): { typeFunction?: () => unknown } | undefined };
};

/**
 * What the pre-validation pass needs to know of one DTO property, read once per class from the
 * decorators class-validator and class-transformer already keep (so the limits have one source:
 * the `@ArrayMaxSize` the OpenAPI document's maxItems mirrors).
 */
interface PropertyBounds {
  /** @IsArray: a list is the expected value. */
  list: boolean;
  /** @ArrayMaxSize(n). */
  maxItems?: number;
  /** @ValidateNested with @Type(() => Dto): elements (or the value) are checked as that class. */
  nested?: Function;
}

const cache = new WeakMap<Function, Map<string, PropertyBounds>>();

function boundsOf(target: Function): Map<string, PropertyBounds> {
  const known = cache.get(target);
  if (known) return known;
  const byProperty = new Map<string, PropertyBounds>();
  const metadatas: ValidationMetadata[] = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
  for (const m of metadatas) {
    const bounds = byProperty.get(m.propertyName) ?? { list: false };
    if (m.name === 'isArray') bounds.list = true;
    if (m.name === 'arrayMaxSize') bounds.maxItems = Number(m.constraints[0]);
    if (m.type === 'nestedValidation') {
      const type = defaultMetadataStorage.findTypeMetadata(target, m.propertyName);
      const nested = type?.typeFunction?.();
      if (typeof nested === 'function') bounds.nested = nested as Function;
    }
    byProperty.set(m.propertyName, bounds);
  }
  cache.set(target, byProperty);
  return byProperty;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks every list of a body against its `@ArrayMaxSize`, and refuses a list where the DTO takes
 * one object, before class-transformer copies or class-validator validates any element:
 * `{"fields": [{} × 600]}` is refused on its length alone, `{"brand": [0, 1, …]}` on its kind,
 * instead of after 600 (or 100,000) elements were each made into an instance and validated.
 * Nested DTOs are descended only once their own list passed, so the work is bounded by the limits
 * themselves. Everything else (types, whitelist, the elements) is left to class-validator.
 */
export function assertDtoBounds(value: unknown, target: Function, path = ''): void {
  if (!isPlainObject(value)) return;
  for (const [property, bounds] of boundsOf(target)) {
    if (!Object.prototype.hasOwnProperty.call(value, property)) continue;
    const v = value[property];
    const here = path ? `${path}.${property}` : property;
    if (Array.isArray(v)) {
      if (!bounds.list && bounds.nested) throw ApiError.invalid(here, `${here} must be an object, not a list.`);
      if (bounds.maxItems !== undefined && v.length > bounds.maxItems) {
        throw ApiError.invalid(here, `${here} must contain no more than ${bounds.maxItems} elements.`);
      }
      if (bounds.nested) v.forEach((element, i) => assertDtoBounds(element, bounds.nested!, `${here}[${i}]`));
    } else if (bounds.nested) {
      assertDtoBounds(v, bounds.nested, here);
    }
  }
}
