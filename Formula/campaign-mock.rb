# Homebrew formula for campaign-mock's release binaries; this repository is its tap:
#   brew tap OWNER/campaign-mock https://github.com/OWNER/campaign-mock
#   brew install campaign-mock
# The release workflow rewrites version, URLs and checksums for each release
# (scripts/render-release.py); docs/install.md.
class CampaignMock < Formula
  desc "Local stand-in for the Adobe Campaign servers the mobile SDKs talk to"
  homepage "https://github.com/OWNER/campaign-mock"
  version "0.1.0"

  # The macOS binary is built for macOS 15 and uses what it has from 15 on (Synchronization's Mutex).
  depends_on macos: :sequoia

  on_macos do
    url "https://github.com/OWNER/campaign-mock/releases/download/v0.1.0/campaign-mock-0.1.0-macos-universal.tar.gz"
    sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  end

  on_linux do
    on_intel do
      url "https://github.com/OWNER/campaign-mock/releases/download/v0.1.0/campaign-mock-0.1.0-linux-x86_64.tar.gz"
      sha256 "0000000000000000000000000000000000000000000000000000000000000000"
    end
    on_arm do
      url "https://github.com/OWNER/campaign-mock/releases/download/v0.1.0/campaign-mock-0.1.0-linux-aarch64.tar.gz"
      sha256 "0000000000000000000000000000000000000000000000000000000000000000"
    end
  end

  def install
    bin.install "campaign-mock"
  end

  # brew services start campaign-mock: HTTP on 8080, HTTPS on 8443 (--tls auto, for the AEP extension), its
  # state in a data directory of the user's own, as `campaign-mock serve` keeps it per project. The log is
  # in Homebrew's var/log.
  service do
    data = if OS.mac?
      "#{Dir.home}/Library/Application Support/campaign-mock/service"
    else
      # brew clears its environment and hands XDG_DATA_HOME on as HOMEBREW_XDG_DATA_HOME.
      xdg = ENV.fetch("HOMEBREW_XDG_DATA_HOME") { ENV.fetch("XDG_DATA_HOME", "#{Dir.home}/.local/share") }
      "#{xdg}/campaign-mock/service"
    end
    run [opt_bin/"campaign-mock", "serve", "--tls", "auto", "--data-dir", data]
    keep_alive true
    log_path var/"log/campaign-mock.log"
    error_log_path var/"log/campaign-mock.log"
  end

  test do
    require "net/http"

    assert_match "campaign-mock #{version}", shell_output("#{bin}/campaign-mock version")

    port = free_port
    server = spawn "#{bin}/campaign-mock", "serve", "--port", port.to_s, "--in-memory",
                   out: File::NULL, err: File::NULL
    begin
      ready = nil
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 30
      while ready.nil? && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
        begin
          ready = Net::HTTP.get_response(URI("http://127.0.0.1:#{port}/_mock/ready"))
        rescue SystemCallError, EOFError
          sleep 0.1
        end
      end
      refute_nil ready, "campaign-mock did not listen on port #{port} within 30 s"
      assert_equal "200", ready.code
      assert_match '"ready":true', ready.body

      registered = Net::HTTP.post_form(URI("http://127.0.0.1:#{port}/nms/mobile/1/registerIOS.jssp"),
                                       "registrationToken" => "brew-test", "mobileAppUuid" => "campaign-mock-demo-ios")
      assert_equal "OK", registered.body
      devices = Net::HTTP.get(URI("http://127.0.0.1:#{port}/_mock/devices?token=brew-test"))
      assert_match '"registrationToken":"brew-test"', devices
    ensure
      Process.kill("TERM", server)
      _, status = Process.wait2(server)
    end
    assert_predicate status, :success?, "campaign-mock exited #{status} on SIGTERM"
  end
end
