export * from '../../scripts/cluster';
