import { defineConfig } from "vitest/config";

/**
 * Files that drive child processes (the built CLI, store writers, lock starters, docker): their
 * time is the children's, and each keeps the isolation of its own module graph.
 */
const PROCESS_FILES = [
  "test/**/*.e2e.test.ts",
  "test/state/*-processes.test.ts",
  "test/container/**/*.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // 2-core machines: a few workers keep servers bound per file from starving each other.
    maxWorkers: 2,
    reporters: ["default"],
    // The built CLI that end-to-end tests call in-process is loaded by Node itself, as a child
    // would load it, not transformed module by module.
    server: { deps: { external: [/\/dist\//] } },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: PROCESS_FILES,
          // In-process tests share one module graph per worker: loading zod, Octokit and undici
          // again for every file cost more CPU than the tests themselves (measured: 44 s of CPU
          // for test/config, test/github and test/platform isolated, 12 s shared). Every file
          // passes in either mode; a file that starts to depend on a fresh module graph (module
          // state, vi.mock) belongs in the isolated project below.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: PROCESS_FILES,
        },
      },
    ],
  },
});
