// Encodes a form holding one large file (plus a text field) and writes the
// body to /dev/null, printing throughput. bench/encode.sh runs it under
// /usr/bin/time -v for peak RSS. Usage: hoist-bench-encode FILE [BUFFER_BYTES]
import FormData
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    printError("usage: hoist-bench-encode FILE [BUFFER_BYTES]")
    exit(2)
}
let path = arguments[1]
let bufferSize = arguments.count > 2 ? Int(arguments[2]) ?? (1 << 20) : (1 << 20)

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

do {
    let start = now()
    let form = MultipartForm(parts: [.text("note", "benchmark"), .file("file", path: path)])
    let body = try form.makeBody()
    let sink = open("/dev/null", O_WRONLY)
    let written = try body.write(toDescriptor: sink, name: "/dev/null", bufferSize: bufferSize)
    close(sink)
    let seconds = now() - start
    guard written == body.contentLength else {
        printError("wrote \(written) bytes but Content-Length is \(String(describing: body.contentLength))")
        exit(1)
    }
    let rate = Double(written) / seconds / 1e9
    print("bytes=\(written) seconds=\(format3(seconds)) GB/s=\(format3(rate))")
} catch {
    printError("hoist-bench-encode: \(error)")
    exit(1)
}

func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return "\(scaled)"
}

func printError(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
