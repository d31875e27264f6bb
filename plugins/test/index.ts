export { TestModule } from './test.module';
