// The espeak-ng npm package ships no types; this is the part of its Emscripten module we use.
declare module 'espeak-ng' {
  interface ESpeakNgFs {
    writeFile(path: string, data: string | Uint8Array): void;
    readFile(path: string): Uint8Array;
    analyzePath(path: string): { exists: boolean };
  }
  interface ESpeakNgModule {
    FS: ESpeakNgFs;
  }
  interface ESpeakNgOptions {
    /** The command line; main() runs with it as soon as the module is ready. */
    arguments: string[];
    preRun?: Array<(module: ESpeakNgModule) => void>;
    print?: (line: string) => void;
    printErr?: (line: string) => void;
    quit?: (status: number, error: unknown) => void;
  }
  export default function ESpeakNg(options: ESpeakNgOptions): Promise<ESpeakNgModule>;
}
