export { ScheduleModule } from './schedule.module';
