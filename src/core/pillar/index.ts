export { compilePillar, type CompilePillarOptions, type PillarLog } from './compile';
export { mergePillar, update as dictUpdate, MERGE_STRATEGIES, type MergeStrategy } from './merge';
export { ExtPillarRegistry, fileTree, cmdYaml, cmdJson, type ExtPillarSource, type ExtPillarContext } from './ext-pillar';
