export { PillarModule } from './pillar.module';
export { PillarRunner } from './pillar.runner';
