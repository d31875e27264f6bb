export { EventModule } from './event.module';
