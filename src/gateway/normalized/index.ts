/** The normalized middle shared by protocols and providers. */
export * from './request.js';
export * from './stream-parts.js';
export * from './usage.js';
export * from './upstream-error.js';
export * from './destination.js';
export * from './provider.js';
export * from './stored-objects.js';
export * from './call-signal.js';
export * from './field-fates.js';
