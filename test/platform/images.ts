import { solidPng } from '../support/png';

export { solidPng };
