export { CpModule } from './cp.module';
