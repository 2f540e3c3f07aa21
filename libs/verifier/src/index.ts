export * from './bundle-format';
export { BundleCheck, BundleVerdict, UnreadableBundleError, verifyBundle } from './verify-bundle';
export { formatVerdict, main, EXIT } from './main';
