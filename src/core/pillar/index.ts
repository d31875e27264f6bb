export { compilePillar, pillarTop, type CompilePillarOptions, type PillarLog, type PillarTop } from './compile';
export { mergePillar, update as dictUpdate, MERGE_STRATEGIES, type MergeStrategy } from './merge';
export { ExtPillarRegistry, fileTree, cmdYaml, cmdJson, type ExtPillarSource, type ExtPillarContext } from './ext-pillar';
