export { SysModule } from './sys.module';
