export { MineModule } from './mine.module';
