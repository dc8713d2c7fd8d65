export { LocalFileStore } from './local-file-store.js';
export { StatfsDiskProbe } from './statfs-disk-probe.js';
export { usableStorageDir } from './storage-dir.js';
