export { SaltutilModule } from './saltutil.module';
