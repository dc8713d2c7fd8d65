export { ACCESS_LEVELS, grants, isAccessLevel, type AccessLevel, type AccessRow } from './levels.js';
