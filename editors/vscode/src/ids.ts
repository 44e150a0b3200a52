// The extension's own command IDs (palette, code lenses, menus). They must
// differ from the server's command names (protocol.ts): when the server
// advertises executeCommandProvider, vscode-languageclient registers a VS
// Code command under each server command name, and registering the same ID
// twice fails. test/unit/manifest.test.ts checks both.

export const ClientCommand = {
  runExamples: 'capsulang.runExamples',
  dryRunMachine: 'capsulang.dryRunMachine',
  compileModule: 'capsulang.compileModule',
  showMachineDiagram: 'capsulang.showMachineDiagram',
  proposeChange: 'capsulang.proposeChange',
  assessChange: 'capsulang.assessChange',
  commitChange: 'capsulang.commitChange',
  rollbackChange: 'capsulang.rollbackChange',
  explainDiagnostic: 'capsulang.explainDiagnostic',
  clearDryRunResults: 'capsulang.clearDryRunResults',
  restartServer: 'capsulang.restartServer',
  showServerOutput: 'capsulang.showServerOutput',
  showServerDocumentText: 'capsulang.showServerDocumentText',
} as const;

export type ClientCommandId = (typeof ClientCommand)[keyof typeof ClientCommand];

/** Internal commands (not in the palette): a guarded quick fix. */
export const InternalCommand = {
  applyGuardedFix: 'capsulang.internal.applyGuardedFix',
} as const;

export const LANGUAGE_ID = 'capsulang';
/** Capsule governance contracts, which the server also reads. */
export const CAPSULE_CONTRACT_PATTERN = '**/*.capsule.yaml';
export const CLIENT_ID = 'capsulang';
export const CLIENT_NAME = 'Capsulang Language Server';
