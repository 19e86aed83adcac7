package campaignmock.client;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.extension.ExtensionContext;

/** An ExtensionContext of one test, with a store, for calling an extension's callbacks directly. */
final class FakeContext {
    private FakeContext() {}

    @SuppressWarnings("unchecked")
    static ExtensionContext create() {
        Map<Object, Object> values = new HashMap<>();
        ExtensionContext.Store store = (ExtensionContext.Store) Proxy.newProxyInstance(FakeContext.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.Store.class}, (proxy, method, arguments) -> {
                    switch (method.getName()) {
                        case "put": values.put(arguments[0], arguments[1]); return null;
                        case "get": return values.get(arguments[0]);
                        case "getOrComputeIfAbsent":
                            return values.computeIfAbsent(arguments[0], key -> ((Function<Object, Object>) arguments[1]).apply(key));
                        case "remove": return values.remove(arguments[0]);
                        default: throw new UnsupportedOperationException(method.getName());
                    }
                });
        ExtensionContext[] context = new ExtensionContext[1];
        context[0] = (ExtensionContext) Proxy.newProxyInstance(FakeContext.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.class}, (proxy, method, arguments) -> {
                    switch (method.getName()) {
                        case "getRoot": return context[0];
                        case "getStore": return store;
                        default: throw new UnsupportedOperationException(method.getName());
                    }
                });
        return context[0];
    }
}
