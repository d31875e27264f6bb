export { PillarModule } from './pillar.module';
