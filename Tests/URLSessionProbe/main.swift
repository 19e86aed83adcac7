// A URLSession client for the HTTPS tests: GETs the URL, prints the status and body, exits 0 on any
// HTTP answer and 1 on a transport failure (a certificate it does not trust, say).
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count == 2, let url = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: URLSessionProbe URL\n".utf8))
    exit(2)
}
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var code: Int32 = 1
URLSession(configuration: .ephemeral).dataTask(with: url) { data, response, error in
    if let response = response as? HTTPURLResponse {
        print(response.statusCode)
        print(String(decoding: data ?? Data(), as: UTF8.self))
        code = 0
    } else {
        print("error: \(error.map { "\($0)" } ?? "no response")")
    }
    done.signal()
}.resume()
_ = done.wait(timeout: .now() + 20)
exit(code)
