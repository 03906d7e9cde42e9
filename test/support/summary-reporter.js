// Ends every run with one plain line, "N passed, N failed[, N skipped]", so a run that
// executed no test is visible as such (CI reads this line). Skipped groups are named above
// it: a skipped group's title carries its reason (e.g. the container tests without an engine).
'use strict';
class SummaryReporter {
  onRunComplete(_contexts, results) {
    // A suite that could not run (a syntax error, a failing beforeAll) counts as a failure too.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    const groups = new Set();
    for (const file of results.testResults) {
      for (const t of file.testResults)
        if (t.status === 'pending' || t.status === 'todo') groups.add(t.ancestorTitles[0] ?? t.title);
    }
    for (const g of groups) process.stdout.write(`\nskipped: ${g}`);
    // The container and deploy tests are the ones an engine-less machine skips: say plainly that they ran.
    for (const file of results.testResults) {
      const kind = /[\\/]test[\\/](containers|deploy)[\\/]/.exec(file.testFilePath)?.[1];
      if (!kind) continue;
      const count = (status) => file.testResults.filter((t) => t.status === status).length;
      process.stdout.write(
        `\n${kind === 'deploy' ? 'deploy' : 'container'} tests (${file.testFilePath.split(/[\\/]/).pop()}): ` +
          `${count('passed')} passed, ${count('failed')} failed, ${count('pending')} skipped`,
      );
    }
    process.stdout.write(
      `\n${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
module.exports = SummaryReporter;
