export { GrainsModule } from './grains.module';
export { CoreGrains } from './core-grains';
