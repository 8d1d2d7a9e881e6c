package test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestComposeFile holds deploy/compose.yaml to the shape the README promises:
// two API instances and one worker over PostgreSQL, Redis and an S3 store.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	var doc struct {
		Services map[string]struct {
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Image       string            `yaml:"image"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(readText(t, filepath.Join("..", "deploy", "compose.yaml"))), &doc); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	roles := map[string]int{}
	for name, s := range doc.Services {
		if len(s.Command) == 1 && (s.Command[0] == "api" || s.Command[0] == "worker") {
			roles[s.Command[0]]++
			for _, v := range []string{"DATABASE_URL", "CORE_BUS_URL", "CORE_BLOB_URL"} {
				if s.Environment[v] == "" {
					t.Errorf("%s lacks %s", name, v)
				}
			}
		}
	}
	if roles["api"] != 2 || roles["worker"] != 1 {
		t.Errorf("roles %v, want 2 api and 1 worker", roles)
	}
	for _, want := range []string{"postgres", "redis", "minio"} {
		if _, ok := doc.Services[want]; !ok {
			t.Errorf("no %s service", want)
		}
	}
}

// TestDockerImage builds the image and checks that it starts and reports
// healthy. It needs a Docker daemon and the base images; without them it
// says why and skips.
func TestDockerImage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: no image build")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := exec.CommandContext(ctx, "docker", "info").Run(); err != nil {
		t.Skip("no Docker daemon answers: the image is not built here (scripts/check-deploy still verifies the release build and units)")
	}
	for _, img := range []string{"golang:1.26-bookworm", "gcr.io/distroless/static-debian12:nonroot"} {
		if exec.CommandContext(ctx, "docker", "image", "inspect", img).Run() != nil &&
			exec.CommandContext(ctx, "docker", "pull", img).Run() != nil {
			t.Skipf("base image %s cannot be had here: the image is not built", img)
		}
	}
	tag := "coreportal-test:" + time.Now().Format("20060102150405")
	build := exec.CommandContext(ctx, "docker", "build", "-t", tag, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	defer exec.Command("docker", "image", "rm", "-f", tag).Run()
	out, err := exec.CommandContext(ctx, "docker", "run", "-d", "-e", "SEED_ADMIN_PASSWORD=Docker-Test-Pass-42", tag).Output()
	if err != nil {
		t.Fatalf("docker run: %v", err)
	}
	id := strings.TrimSpace(string(out))
	defer exec.Command("docker", "rm", "-f", id).Run()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		st, _ := exec.CommandContext(ctx, "docker", "inspect", "-f", "{{.State.Health.Status}}", id).Output()
		if strings.TrimSpace(string(st)) == "healthy" {
			return
		}
	}
	logs, _ := exec.Command("docker", "logs", id).CombinedOutput()
	t.Fatalf("container never became healthy\n%s", logs)
}
