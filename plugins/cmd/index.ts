export { CmdModule } from './cmd.module';
