import Synchronization
import Testing

@testable import CampaignMockHTTP

/// What the tracers saw, in order.
private final class Trace: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Records what passes through it, and answers by itself for requests carrying `X-Stop`.
private struct Tracer: Middleware {
    let name: String
    let trace: Trace

    func handle(_ request: HTTPRequest, reply: ReplyChannel, next: MiddlewareNext) throws {
        trace.add("\(name) in")
        if request.headers[HTTPHeaderName(rawValue: "X-Refuse")] == name { throw Failure() }
        if request.headers[HTTPHeaderName(rawValue: "X-Stop")] == name {
            reply.send(.text(.ok, "stopped by \(name)"))
            return
        }
        next(
            request,
            ReplyChannel { [trace, name] answer in
                trace.add("\(name) out")
                reply.send(answer)
            })
    }
}

/// Every error as a 418 whose body is the error's text.
@Sendable private func teapot(_ error: any Error) -> HTTPResponse {
    .text(HTTPStatus(code: 418), "\(error)")
}

private struct Failure: Error, CustomStringConvertible {
    var description: String { "failed" }
}

@Suite("router groups and middleware")
struct RouterTests {
    private let trace = Trace()

    private func router() -> Router {
        var router = Router()
        router.group(
            "/admin", middleware: [Tracer(name: "outer", trace: trace), Tracer(name: "inner", trace: trace)],
            errorResponse: teapot
        ) { group in
            group.add(.get, "/admin/items/{id}", respond: { _, parameters in .text(.ok, "item \(parameters["id"]!)") })
            group.add(.get, "/admin/fail") { _, _, _ in throw Failure() }
        }
        router.group("/", middleware: [Tracer(name: "site", trace: trace)]) { group in
            group.add(.get, "/page", respond: { _ in .text(.ok, "page") })
        }
        return router
    }

    /// The router's answer, given synchronously by every route here.
    private func answer(_ method: HTTPMethod, _ target: String, stop: String? = nil, refuse: String? = nil)
        -> HTTPResponse?
    {
        var headers: HTTPHeaders = [:]
        if let stop { headers.append(HTTPHeaderName(rawValue: "X-Stop"), stop) }
        if let refuse { headers.append(HTTPHeaderName(rawValue: "X-Refuse"), refuse) }
        let answer = Mutex<HTTPResponse?>(nil)
        router().handle(
            HTTPRequest(method: method, target: target, headers: headers),
            reply: ReplyChannel { reply in
                if case .response(let response) = reply { answer.withLock { $0 = response } }
            })
        return answer.withLock { $0 }
    }

    private var bodyText: (HTTPResponse?) -> String { { String(decoding: $0?.body ?? [], as: UTF8.self) } }

    @Test func aRouteRunsBehindItsGroupsMiddlewareInOrder() {
        let response = answer(.get, "/admin/items/a%20b")
        #expect(response?.status == .ok)
        #expect(bodyText(response) == "item a b")
        #expect(trace.all == ["outer in", "inner in", "inner out", "outer out"])
    }

    @Test func aMiddlewareMayAnswerWithoutTheRoute() {
        let response = answer(.get, "/admin/items/1", stop: "outer")
        #expect(bodyText(response) == "stopped by outer")
        #expect(trace.all == ["outer in"])
    }

    @Test func aRoutesErrorIsAnsweredInTheGroupsFormatAndSeenOnTheWayOut() {
        let response = answer(.get, "/admin/fail")
        #expect(response?.status.code == 418)
        #expect(bodyText(response) == "failed")
        #expect(trace.all == ["outer in", "inner in", "inner out", "outer out"])
    }

    @Test func aMiddlewaresErrorIsAnsweredOnTheChannelItWasGiven() {
        let response = answer(.get, "/admin/items/1", refuse: "inner")
        #expect(response?.status.code == 418)
        #expect(trace.all == ["outer in", "inner in", "outer out"])
    }

    @Test func unknownPathsAndWrongMethodsGoThroughTheGroupOfTheirPrefix() {
        let missing = answer(.get, "/admin/nothing")
        #expect(missing?.status.code == 418)
        #expect(bodyText(missing) == "404 no endpoint at /admin/nothing")
        let wrongMethod = answer(.post, "/admin/items/1")
        #expect(wrongMethod?.status.code == 418)
        #expect(bodyText(wrongMethod) == "405 POST is not allowed on /admin/items/1; use GET, HEAD")
        #expect(trace.all.filter { $0.hasPrefix("site") }.isEmpty)
    }

    @Test func aLiteralSegmentWinsOverAParameterWhateverTheMethod() {
        var router = Router()
        router.group("/") { group in
            group.add(.get, "/items/{id}", respond: { _, parameters in .text(.ok, "item \(parameters["id"]!)") })
            group.add(.post, "/items/new", respond: { _ in .text(.created, "new") })
        }
        func answer(_ method: HTTPMethod, _ target: String) -> HTTPResponse? {
            let answer = Mutex<HTTPResponse?>(nil)
            router.handle(
                HTTPRequest(method: method, target: target),
                reply: ReplyChannel { reply in
                    if case .response(let response) = reply { answer.withLock { $0 = response } }
                })
            return answer.withLock { $0 }
        }
        #expect(bodyText(answer(.get, "/items/7")) == "item 7")
        #expect(answer(.post, "/items/new")?.status == .created)
        let get = answer(.get, "/items/new")
        #expect(get?.status == .methodNotAllowed)
        #expect(get?.headers[HTTPHeaderName(rawValue: "Allow")] == "POST")
        #expect(answer(.post, "/items/7")?.headers[HTTPHeaderName(rawValue: "Allow")] == "GET, HEAD")
    }

    @Test func aPathBelongsToTheLongestPrefixThatCoversIt() {
        let site = answer(.get, "/administrator")
        #expect(site?.status == .notFound)
        #expect(bodyText(site) == "no endpoint at /administrator")
        #expect(trace.all == ["site in", "site out"])
        #expect(answer(.head, "/page")?.status == .ok)
    }

    @Test func anErrorNoMiddlewareCatchesBecomesAPlainResponse() {
        var router = Router()
        router.group("/") { group in
            group.add(.get, "/boom") { _, _, _ in throw Failure() }
            group.add(.get, "/teapot") { _, _, _ in throw HTTPError(HTTPStatus(code: 418), "short and stout") }
        }
        let answers = Mutex<[HTTPResponse]>([])
        for target in ["/boom", "/teapot"] {
            router.handle(
                HTTPRequest(method: .get, target: target),
                reply: ReplyChannel { reply in
                    if case .response(let response) = reply { answers.withLock { $0.append(response) } }
                })
        }
        let (boom, teapot) = answers.withLock { ($0[0], $0[1]) }
        #expect(boom.status == .internalServerError)
        #expect(bodyText(boom) == "internal error: failed")
        #expect(teapot.status.code == 418)
        #expect(bodyText(teapot) == "short and stout")
    }
}
