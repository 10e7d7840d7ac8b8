struct StoreBenchmark { init(arguments: [String]) {}; func run() async {} }
