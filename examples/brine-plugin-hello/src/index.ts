// The package's brine entry (package.json "brine.entry" points at its compiled form): every
// @Module, @StateModule and @GrainsProvider class exported here is loaded.
export { HelloModule } from './hello.module';
export { HelloStates } from './hello.state';
