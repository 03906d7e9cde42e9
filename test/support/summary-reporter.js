// Ends every run with one plain line, "N passed, N failed[, N skipped]", so a run that
// executed no test is visible as such (CI reads this line).
'use strict';
class SummaryReporter {
  onRunComplete(_contexts, results) {
    // A suite that could not run (a syntax error, a failing beforeAll) counts as a failure too.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
module.exports = SummaryReporter;
