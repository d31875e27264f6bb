export { PillarRootsWheel } from './pillar-roots.wheel';
