# Runs a formula's install and test blocks outside Homebrew, with the few parts of Homebrew's DSL that
# Formula/campaign-mock.rb uses, so its test block is checked against a real binary on any machine with
# Ruby. It stands in for `brew install` + `brew test`, which need Homebrew itself.
#
#   ruby homebrew_shim.rb FORMULA.rb SOURCE_DIR PREFIX
#
# SOURCE_DIR holds the unpacked release tarball (what Homebrew's staging directory would hold); the
# formula installs into PREFIX and its test block runs in a fresh directory. Prints one JSON line: the
# version and each platform's url and sha256 as the formula declares them. Exits non-zero when the
# install or a test assertion fails. With a service block (brew services), the JSON has "service": its
# command and settings, evaluated as `brew services start` would for this user. Used by
# Tests/Contract/test_release.py.
require "fileutils"
require "json"
require "open3"
require "pathname"
require "socket"
require "tmpdir"

class Pathname
  # Homebrew's Pathname#install: moves the named files of the working directory into this directory.
  def install(*names)
    mkpath
    names.flatten.each { |name| FileUtils.mv(name.to_s, (self / File.basename(name.to_s)).to_s) }
  end
end

class Formula
  class AssertionFailed < StandardError; end

  class << self
    attr_reader :declared, :test_block

    def inherited(subclass)
      super
      subclass.instance_variable_set(:@declared, { "urls" => {} })
      subclass.instance_variable_set(:@contexts, [])
      (@subclasses ||= []) << subclass
    end

    def subclasses_loaded = @subclasses || []

    def desc(text) = @declared["desc"] = text
    def homepage(text) = @declared["homepage"] = text
    def license(text) = @declared["license"] = text
    def depends_on(requirement) = (@declared["depends_on"] ||= []) << requirement

    def version(text = nil)
      @declared["version"] = text if text
      @declared["version"]
    end

    # The blocks of every platform are read, each under its own name ("macos", "linux-intel", ...).
    %w[macos linux intel arm].each do |name|
      define_method("on_#{name}") do |&block|
        @contexts.push(name)
        block.call
        @contexts.pop
      end
    end

    def url(address, **_options)
      @declared["urls"][@contexts.join("-")] = { "url" => address }
    end

    def sha256(digest)
      (@declared["urls"][@contexts.join("-")] ||= {})["sha256"] = digest
    end

    def test(&block)
      @test_block = block
    end

    def service(&block)
      @service_block = block
    end

    attr_reader :service_block
  end

  def initialize(prefix)
    @prefix = Pathname(prefix)
  end

  attr_reader :prefix

  def bin = prefix / "bin"
  def opt_bin = bin
  def var = prefix / "var"
  def version = self.class.version
  def testpath = Pathname(Dir.pwd)

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def shell_output(command, result = 0)
    output, status = Open3.capture2(command)
    assert_equal result, status.exitstatus, "`#{command}` exited #{status.exitstatus}"
    output
  end

  def assert(value, message = "expected a true value")
    raise AssertionFailed, message unless value
  end

  def assert_match(pattern, text, message = nil)
    pattern = Regexp.new(Regexp.escape(pattern)) if pattern.is_a?(String)
    assert(pattern.match?(text), message || "expected #{text.inspect} to match #{pattern.inspect}")
  end

  def assert_equal(expected, actual, message = nil)
    assert(expected == actual, message || "expected #{expected.inspect}, got #{actual.inspect}")
  end

  def refute_nil(value, message = nil)
    assert(!value.nil?, message || "expected a value, got nil")
  end

  def assert_predicate(value, predicate, message = nil)
    assert(value.public_send(predicate), message || "expected #{value.inspect} to be #{predicate}")
  end
end

# Homebrew's OS.mac? / OS.linux?, for the service block.
module OS
  def self.mac? = RUBY_PLATFORM.include?("darwin")
  def self.linux? = RUBY_PLATFORM.include?("linux")
end

# What `brew services` reads from a formula's service block (Homebrew::Service): the command and the
# launchd / systemd settings, with the formula's paths (opt_bin, var) delegated to it.
class Service
  def initialize(formula)
    @formula = formula
    @declared = {}
  end

  attr_reader :declared

  def opt_bin = @formula.opt_bin
  def var = @formula.var
  def run(command) = @declared["run"] = Array(command).map(&:to_s)
  def keep_alive(value) = @declared["keep_alive"] = value
  def log_path(path) = @declared["log_path"] = path.to_s
  def error_log_path(path) = @declared["error_log_path"] = path.to_s
  def working_dir(path) = @declared["working_dir"] = path.to_s
end

formula_file, source_dir, prefix = ARGV
abort "usage: ruby homebrew_shim.rb FORMULA.rb SOURCE_DIR PREFIX" unless prefix
load File.expand_path(formula_file)
formula_class = Formula.subclasses_loaded.last or abort "#{formula_file} defines no formula"
formula = formula_class.new(File.expand_path(prefix))
Dir.chdir(source_dir) { formula.install }
abort "the formula installed no #{formula.bin}/campaign-mock" unless File.executable?(formula.bin / "campaign-mock")
abort "the formula has no test block" unless formula_class.test_block
Dir.mktmpdir("formula-test-") { |dir| Dir.chdir(dir) { formula.instance_eval(&formula_class.test_block) } }
declared = formula_class.declared
if formula_class.service_block
  service = Service.new(formula)
  service.instance_eval(&formula_class.service_block)
  declared = declared.merge("service" => service.declared)
end
puts JSON.generate(declared)
