// The probe moved to @inntak/files, which the CLI's prune shares.
export { StatfsDiskProbe } from '@inntak/files';
