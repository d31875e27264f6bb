export { freePort } from '../../scripts/cluster';
