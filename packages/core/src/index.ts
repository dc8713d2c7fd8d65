export { AppError, coerceError, type ErrorCode } from './errors.js';
export { uuidv7, isUuid } from './ids.js';
export type { Logger } from './logger.js';
export { storable, storableJson } from './storable.js';
