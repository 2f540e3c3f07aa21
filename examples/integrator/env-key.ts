import { createDojangClient } from '@dojang/client';

/**
 * The client as README.md and docs/API.md show it, a key read from the environment: compiled by
 * this project under exactOptionalPropertyTypes (process.env.KEY is string | undefined).
 */
export const fromEnvironment = () => createDojangClient({ baseUrl: 'http://localhost:3000/v1', apiKey: process.env.KEY });
