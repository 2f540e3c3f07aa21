import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { BUILT_IN_KEY_NAMES } from '@dojang/domain';
import { ApiError } from './api-error';
import { assertDtoBounds } from './dto-bounds-guard';

const MISSING = new Set(['isDefined', 'isNotEmpty', 'arrayNotEmpty']);

function firstError(errors: ValidationError[], prefix = ''): { param: string; constraint: string; message: string } | null {
  for (const e of errors) {
    const param = prefix ? (/^\d+$/.test(e.property) ? `${prefix}[${e.property}]` : `${prefix}.${e.property}`) : e.property;
    if (e.constraints) {
      const keys = Object.keys(e.constraints);
      // Absent (isDefined) or present but empty ('' or []) is missing; a value of the wrong type
      // (an object where a list belongs) is invalid even though it is not a non-empty list either.
      const constraint = keys.includes('isDefined') ? 'isDefined' : (keys.find((k) => !MISSING.has(k)) ?? keys[0]);
      return { param, constraint, message: e.constraints[constraint] };
    }
    const nested = firstError(e.children ?? [], param);
    if (nested) return nested;
  }
  return null;
}

/**
 * DTO validation with the whitelist on: a property the DTO does not declare (id, status,
 * livemode, timestamps, signing records) is refused, so nothing can be mass-assigned.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** toString, valueOf, hasOwnProperty, isPrototypeOf…: every name a plain object inherits (the domain's one rule for client-named keys). */
const BUILT_IN_KEYS = BUILT_IN_KEY_NAMES;

/**
 * Top-level body properties whose keys are the client's own names, not parameters: template
 * variables (`{{constructor}}` is as good a placeholder as `{{name}}`). Any key is allowed in them;
 * they bypass class-transformer (which drops or trips on such keys) and reach the route as
 * null-prototype copies, so no key can reach or replace Object.prototype.
 */
const FREE_FORM_MAPS = new Set(['variables']);

/** A deep copy of parsed JSON with every object null-prototype: `__proto__` and `constructor` are plain keys there. */
function nullPrototypeCopy(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => nullPrototypeCopy(v, depth + 1));
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) out[key] = nullPrototypeCopy((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/** The first reserved key anywhere in a parsed body, with its path, e.g. `metadata.__proto__`. */
function reservedKey(value: unknown, path: string, depth = 0): { path: string; key: string } | null {
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const key of Object.keys(value)) {
    if (depth === 0 && FREE_FORM_MAPS.has(key)) continue;
    const here = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (RESERVED_KEYS.has(key) || (!Array.isArray(value) && BUILT_IN_KEYS.has(key))) return { path: here, key };
    const nested = reservedKey((value as Record<string, unknown>)[key], here, depth + 1);
    if (nested) return nested;
  }
  return null;
}

/**
 * class-transformer silently drops `__proto__` and `constructor`, and any key a plain object
 * inherits a function for (`toString`, `valueOf`, `isPrototypeOf`…), so the whitelist never sees
 * them: they would be accepted and ignored (a metadata key or template variable lost). Refuse
 * them like any other property that cannot be set.
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata) {
    // Every body is described by a DTO class, an object: a JSON array would be validated as a
    // list of them, pass, and reach the route as if it named nothing.
    if (metadata.type === 'body' && Array.isArray(value)) {
      throw ApiError.invalid('body', 'The request body must be a JSON object (e.g. {"title": "…"}), not an array.');
    }
    // Lengths and kinds before anything walks the elements (the reserved-key walk below,
    // class-transformer, class-validator): an over-long list costs its length check only.
    if ((metadata.type === 'body' || metadata.type === 'query') && metadata.metatype) assertDtoBounds(value, metadata.metatype);
    if (metadata.type === 'body' || metadata.type === 'query') {
      const found = reservedKey(value, '');
      if (found && RESERVED_KEYS.has(found.key)) {
        throw ApiError.invalid(found.path, `${found.path} is not a parameter of this request (or cannot be set by clients).`);
      }
      if (found) {
        throw ApiError.invalid(found.path, `${found.path}: "${found.key}" is the name of a built-in property of JavaScript objects and cannot be used as a key here.`);
      }
    }
    // class-transformer walks a map's values and throws on a key named `constructor`: it validates
    // an empty stand-in, and the route gets the map itself (a value of the wrong kind stays, to be refused).
    const maps = new Map<string, unknown>();
    let input = value;
    if (metadata.type === 'body' && isPlainObject(value)) {
      for (const key of FREE_FORM_MAPS) if (isPlainObject(value[key])) maps.set(key, nullPrototypeCopy(value[key]));
      if (maps.size > 0) input = { ...value, ...Object.fromEntries([...maps.keys()].map((k) => [k, {}])) };
    }
    const result: unknown = await super.transform(input, metadata);
    if (isPlainObject(result)) for (const [key, map] of maps) result[key] = map;
    return result;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const first = firstError(errors);
      if (!first) return ApiError.invalid('body', 'The request is invalid.');
      if (first.constraint === 'whitelistValidation') {
        return ApiError.invalid(first.param, `${first.param} is not a parameter of this request (or cannot be set by clients).`);
      }
      if (MISSING.has(first.constraint)) return ApiError.missing(first.param, `${first.param} is required.`);
      return ApiError.invalid(first.param, first.message);
    },
  });
}
