export { BeaconsModule } from './beacons.module';
