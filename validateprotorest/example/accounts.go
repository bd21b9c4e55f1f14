// Package example is an example service whose requests carry
// protovalidate rules (accounts/v1/accounts.proto), served by the
// protorest demo with validation on.
package example

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	accountsv1 "github.com/protorest/protorest/validateprotorest/example/accounts/v1"
)

// Accounts is accounts.v1.AccountService, in memory. It counts the calls
// it gets, so that a test can tell that a refused request never came.
type Accounts struct {
	accountsv1.UnimplementedAccountServiceServer
	mu       sync.Mutex
	accounts map[string]*accountsv1.Account
	calls    int
}

// NewAccounts returns an AccountService with no accounts.
func NewAccounts() *Accounts {
	return &Accounts{accounts: map[string]*accountsv1.Account{}}
}

// CreateAccount stores the account; ALREADY_EXISTS for a user name taken.
func (a *Accounts) CreateAccount(_ context.Context, req *accountsv1.CreateAccountRequest) (*accountsv1.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if _, ok := a.accounts[req.GetUsername()]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "account %q already exists", req.GetUsername())
	}
	acc := &accountsv1.Account{Username: req.GetUsername(), Email: req.GetEmail(), Age: req.GetAge(),
		Interests: req.GetInterests(), DisplayName: req.GetDisplayName()}
	a.accounts[acc.Username] = acc
	return proto.CloneOf(acc), nil
}

// GetAccount returns the account; NOT_FOUND when there is none.
func (a *Accounts) GetAccount(_ context.Context, req *accountsv1.GetAccountRequest) (*accountsv1.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	acc, ok := a.accounts[req.GetUsername()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no account %q", req.GetUsername())
	}
	return proto.CloneOf(acc), nil
}

// Calls returns the number of calls the service has had.
func (a *Accounts) Calls() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}
