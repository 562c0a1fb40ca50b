// Prepares every image given, as `hoist send --image-*` does, N at a time,
// into OUT; prints the wall time in seconds. bench/images.sh runs it beside
// vipsthumbnail and ImageMagick. Usage:
// hoist-bench-images MAX_DIM QUALITY CONCURRENCY OUT FILE...
import Dispatch
import Glibc
import ImagePrep

@main
enum ImageBench {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 6, let maxDimension = Int(arguments[1]), let quality = Int(arguments[2]),
            let concurrency = Int(arguments[3])
        else {
            printError("usage: hoist-bench-images MAX_DIM QUALITY CONCURRENCY OUT FILE...")
            exit(2)
        }
        let folder = arguments[4]
        let settings = ImageSettings(quality: quality, maxDimension: maxDimension)
        let start = now()
        let slots = DispatchSemaphore(value: concurrency)
        let group = DispatchGroup()
        for file in arguments[5...] {
            slots.wait()
            DispatchQueue.global().async(group: group) {
                defer { slots.signal() }
                do {
                    let name = String(file.split(separator: "/").last!)
                    _ = try ImagePreparer.prepare(file, filename: name, settings: settings, into: folder)
                } catch {
                    printError("\(file): \(error)")
                    exit(1)
                }
            }
        }
        group.wait()
        print(((now() - start) * 1000).rounded() / 1000)
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func printError(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
