export { ManageRunner, compareVersions } from './manage.runner';
