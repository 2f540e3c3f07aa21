// Lives next to `authenticate` (which the guard and it share) so the two files form no import cycle.
export { requestApiKey, roleMayUseMethod } from '../shared/auth.guard';
