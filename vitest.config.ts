import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // 2-core machines: a few workers keep servers bound per file from starving each other.
    maxWorkers: 2,
    reporters: ["default"],
    // The files of a worker share one module graph: loading zod, Octokit, undici, the simulator,
    // the stand-in and the built CLI again for every file cost more CPU than most tests
    // themselves (measured: test/config, test/github and test/platform 44 s of CPU isolated, 12 s
    // shared; eight end-to-end files 49 s and 32 s). No test relies on a fresh module graph; one
    // that comes to (module state, vi.mock) needs a project of its own with `isolate: true`.
    isolate: false,
    // The built CLI that end-to-end tests call in-process is loaded by Node itself, as a child
    // would load it, not transformed module by module.
    server: { deps: { external: [/\/dist\//] } },
  },
});
