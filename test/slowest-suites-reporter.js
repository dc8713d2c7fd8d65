// Prints the 15 slowest test files of a run (jest's own timing: each file's runtime in its
// worker), so a newcomer sees where `npm test`'s time goes and a slow file cannot creep in
// unnoticed (issue 34: "print the slowest 15 suites").
import { relative } from 'node:path';

const SHOWN = 15;

export default class SlowestSuitesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((file) => file.perfStats && file.perfStats.runtime > 0)
      .map((file) => ({ path: relative(this.rootDir, file.testFilePath), seconds: file.perfStats.runtime / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SHOWN);
    if (files.length === 0) return;
    const lines = files.map(({ path, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${path}`);
    process.stderr.write(`\nThe ${files.length} slowest test files:\n${lines.join('\n')}\n`);
  }
}
