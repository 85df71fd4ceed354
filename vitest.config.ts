import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // 2-core machines: a few workers keep servers bound per file from starving each other.
    maxWorkers: 2,
    reporters: ["default"],
  },
});
