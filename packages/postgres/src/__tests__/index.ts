// Test scenes of this package's own tests (not built, not exported).
export { admin, setupAdminScene, testDb } from './admin-scene.js';
